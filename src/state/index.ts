/**
 * Graph state: definitions, reducers, `addMessages`, `Replace` and `RemoveMessage`.
 *
 * @module
 */
export {
  addMessages,
  type MessagesUpdate,
  MessagesUpdateSchema,
  RemoveMessage,
  RemoveMessageSchema,
} from "./add-messages.js";
export { applyUpdate } from "./apply-update.js";
export {
  defineState,
  type FieldDeclaration,
  type FieldSpec,
  isStateDefinition,
  type PreparedUpdate,
  type StateDefinition,
  type StateOfShape,
  type StateShape,
  type UpdateOfShape,
} from "./define-state.js";
export { initialState } from "./initial-state.js";
export { messagesField } from "./messages-field.js";
export { preparePayload, prepareUpdate } from "./prepare-update.js";
export { type ReducedField, type Reducer, reducer } from "./reducer.js";
export { isReplacement, Replace, type Replacement } from "./replace.js";
export type { FieldCodec } from "./update-codec.js";

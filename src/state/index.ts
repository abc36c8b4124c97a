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
export {
  applyUpdate,
  defineState,
  type FieldDeclaration,
  type FieldSpec,
  initialState,
  isStateDefinition,
  messagesField,
  type PreparedUpdate,
  preparePayload,
  prepareUpdate,
  type ReducedField,
  type Reducer,
  reducer,
  type StateDefinition,
  type StateOfShape,
  type StateShape,
  type UpdateOfShape,
} from "./define-state.js";
export { isReplacement, Replace, type Replacement } from "./replace.js";
export type { FieldCodec } from "./update-codec.js";

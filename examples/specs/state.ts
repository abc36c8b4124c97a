import { defineState, reducer } from "nodestep";
import { z } from "zod";

export const TicketState = defineState({
  text: z.string().default(""),
  priority: z.enum(["low", "high"]).nullable().default(null),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
export type Ticket = typeof TicketState.State;

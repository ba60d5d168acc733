/**
 * Private stand-in for the shared `GrammarContext` (`grammar/context.ts`, owned by the core).
 * Structurally compatible: only `budget` is used by the natural and RRULE grammars.
 */
import type { Budget } from '../../../types';

export interface NaturalContext {
  budget: Budget;
}

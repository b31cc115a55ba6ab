/**
 * The Pi events after which background advisor work (cache warming, completion review) must stop,
 * and record what it spent, before the session changes under it (docs/architecture.md, Lifecycle).
 */
export type InterruptReason =
	| "session_before_compact"
	| "session_before_tree"
	| "session_before_switch"
	| "session_before_fork"
	| "session_shutdown";

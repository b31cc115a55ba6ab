/** What every tool run gets from the factory and the call. */

import type { Workspace } from "./workspace.ts";

export interface RunContext {
	readonly workspace: Workspace;
	readonly callId: string;
	/** Fires on the caller's abort, the consultation's abort, or the per-call deadline. */
	readonly signal: AbortSignal;
	readonly timeoutMs: number;
	readonly modelAcceptsImages: boolean;
}

/**
 * Pi's agent dir and its model registry as the CLI opens them — where Pi itself looks: pi-ai's built-in
 * models plus `models.json` in the agent dir (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`), through Pi's
 * own `ModelRegistry`, so a custom model prices and resolves as in Pi. Nothing is written: the auth
 * storage is `auth.json` there when the caller needs credentials and it exists, else an empty one in
 * memory, never a new file.
 */

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { AuthStorage, ModelRegistry } from "@mariozechner/pi-coding-agent";

/** `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function agentDir(env: NodeJS.ProcessEnv): string {
	const dir = env.PI_CODING_AGENT_DIR;
	return dir !== undefined && dir !== "" ? resolve(dir) : join(homedir(), ".pi", "agent");
}

export interface Registry {
	registry: ModelRegistry;
	/** models.json could not be used (Pi's own message); built-in models still resolve. */
	warning: string | undefined;
	dir: string;
}

/**
 * The registry of the agent dir `env` names. `credentials`: read auth.json (eval calls models); without
 * it (stats only prices) no credential is read at all.
 */
export function openRegistry(env: NodeJS.ProcessEnv, credentials: boolean): Registry {
	const dir = agentDir(env);
	const authPath = join(dir, "auth.json");
	const storage = credentials && existsSync(authPath) ? AuthStorage.create(authPath) : AuthStorage.inMemory();
	const registry = ModelRegistry.create(storage, join(dir, "models.json"));
	return { registry, warning: registry.getError(), dir };
}

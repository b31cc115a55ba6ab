/**
 * Flags npm kept for itself (docs/cli.md, "Running it"). Before `--`, `npm run replay --json` hands
 * `--json` to npm, not to the script: npm sets `npm_config_json=true` and runs `advisor-ledger
 * replay` without it, and `--every 3` leaves `3` behind as a path. Run from an npm script (npm sets
 * `npm_lifecycle_event`), the CLI looks for such a variable naming one of the command's flags that
 * did not reach it, and stops with one line saying where the flags go instead of doing something
 * else than was asked. (`--svg` never gets here: npm reads it as `-s -v -g` and prints its own
 * version.) Under npx the variables are npx's own (`npx --yes advisor-ledger …`): npx passes every
 * flag after the command's name.
 */

import { COMMAND_FLAGS } from "./args.ts";
import { visibleLine } from "./escape.ts";

/** npm's name for a flag in the environment: `--all-leaves` → `npm_config_all_leaves`. */
function npmVariable(flag: string): string {
	return `npm_config_${flag.slice(2).replaceAll("-", "_")}`;
}

/** The line saying which of the command's flags npm kept and how to pass them; undefined when none. */
export function npmKeptFlagsLine(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
	const event = env.npm_lifecycle_event;
	const command = argv[0];
	if (event === undefined || event === "" || event === "npx") return undefined;
	if (command === undefined || !Object.hasOwn(COMMAND_FLAGS, command)) return undefined;
	const reached = new Set(argv.map((arg) => arg.split("=")[0]));
	const flags: Record<string, { value?: string }> = COMMAND_FLAGS[command as keyof typeof COMMAND_FLAGS];
	const kept: { flag: string; form: string }[] = [];
	for (const [flag, spec] of Object.entries(flags)) {
		// `yes=true` in an .npmrc is common (npx's prompt) and says nothing of eval's --yes; a
		// missing --yes is never silent anyway: eval asks, or says why it cannot.
		if (flag === "--yes" || reached.has(flag)) continue;
		const value = env[npmVariable(flag)];
		// npm writes a false switch as "" (from an .npmrc, say): not a flag that was given.
		if (value === undefined || value === "" || value === "false") continue;
		// `--every=3` leaves npm_config_every=3; `--every 3` leaves "true" (and 3 as a path).
		const shown = spec.value === undefined ? "" : ` ${value === "true" ? spec.value : visibleLine(value)}`;
		kept.push({ flag, form: `${flag}${shown}` });
	}
	if (kept.length === 0) return undefined;
	const forms = kept.map((k) => k.form).join(" ");
	// npm prints its banner on stdout before the script's: JSON is JSON only with npm's -s.
	const silent = kept.some((k) => k.flag === "--json") ? "-s " : "";
	const how = `npm run ${silent}${visibleLine(event)} -- ${forms}`;
	const variables = kept.map((k) => npmVariable(k.flag)).join(", ");
	return `npm took ${kept.map((k) => k.flag).join(", ")} for itself (${variables}) and did not pass ${kept.length === 1 ? "it" : "them"} on; put the flags after --: ${how}`;
}

/**
 * The one line the executor's stream shows per investigation call, e.g. `read src/app.ts`.
 * Built from the model's arguments, so control characters are escaped before anything else:
 * the line goes to the user's terminal.
 */

import { clip, EXPAND_TOOL_NAME, GIT_DIFF_TOOL_NAME, oneLine } from "../../../render/index.ts";
import { escapeControlChars } from "../pi/control-chars.ts";
import { parseExpandIds } from "./advisor-expand.ts";
import { booleanArg, numberArg, stringArg, type ToolArgs } from "./result.ts";

const SUMMARY_MAX_CHARS = 120;

export function summarizeCall(name: string, args: ToolArgs): string {
	return clip(oneLine(escapeControlChars(describe(name, args))), SUMMARY_MAX_CHARS);
}

function describe(name: string, args: ToolArgs): string {
	const path = stringArg(args, "path");
	switch (name) {
		case EXPAND_TOOL_NAME:
			return `${name} ${parseExpandIds(args.ids)
				.map((id) => `#${id}`)
				.join(" ")}`;
		case "read": {
			const offset = numberArg(args, "offset");
			return `read ${path ?? ""}${offset === undefined ? "" : ` from line ${offset}`}`;
		}
		case "grep":
			return `grep /${stringArg(args, "pattern") ?? ""}/ in ${path || "."}`;
		case "find":
			return `find ${stringArg(args, "pattern") ?? ""} in ${path || "."}`;
		case "ls":
			return `ls ${path || "."}`;
		case GIT_DIFF_TOOL_NAME:
			return [
				name,
				booleanArg(args, "patch") ? "--patch" : "--stat",
				booleanArg(args, "staged") ? "--staged" : "",
				path || ".",
			]
				.filter((s) => s !== "")
				.join(" ");
		default:
			return name;
	}
}

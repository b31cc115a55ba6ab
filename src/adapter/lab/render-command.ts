/**
 * `advisor-ledger render FILE [--leaf ID] [--at ENTRY_ID] [--json] [--facts] [--config FILE]`: the exact
 * request a consultation dispatched right after one entry would send (request/render-at.ts), with
 * the user's advisor.json (cli/cli-config.ts): what would really be sent, credential marks included.
 */

import type { ParsedSession } from "../../events/index.ts";
import { EXIT, errorPrefix, type RenderArgs } from "./cli/args.ts";
import { cliConfig } from "./cli/cli-config.ts";
import { visibleLine } from "./cli/escape.ts";
import { displayPath, readParsedInput } from "./cli/inputs.ts";
import type { Io } from "./cli/io.ts";
import { diagnosticsNote } from "./report/diagnostics.ts";
import { writeJson } from "./report/json-stream.ts";
import { writeReadable } from "./request/readable.ts";
import { type Rendered, RenderInputError, renderJson, renderSession } from "./request/render-at.ts";

export function runRender(args: RenderArgs, io: Io): number {
	const loaded = cliConfig("render", args.config, io);
	if (!loaded.ok) {
		io.stderr(`${errorPrefix("render")}${visibleLine(loaded.line)}\n`);
		return EXIT.usage;
	}
	const file = displayPath(args.file, io.cwd);
	// Read and parsed inside the render, so that nothing here holds the parsed entries (renderSession).
	const load = (): ParsedSession => {
		const read = readParsedInput(args.file);
		if (read.ok) return read.parsed;
		throw new RenderInputError(`cannot read ${args.file}: ${read.error}`, EXIT.unreadable);
	};
	let rendered: Rendered;
	try {
		rendered = renderSession(file, load, args.leaf, args.at, { config: loaded.config, facts: args.facts });
	} catch (error) {
		if (error instanceof RenderInputError) {
			io.stderr(`${errorPrefix("render")}${visibleLine(error.message)}\n`);
			return error.exitCode;
		}
		throw error;
	}
	if (args.json) {
		writeJson(renderJson(rendered), io.stdout);
		io.stdout("\n");
	} else writeReadable(rendered, io.style, io.stdout);
	io.stderr(diagnosticsNote("render", file, rendered.diagnostics, rendered.parsed));
	return EXIT.ok;
}

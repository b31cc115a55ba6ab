/**
 * The user's standing instructions in the request's head (docs/request-format.md#standing-instructions):
 * a second part of the catalogue message, before the log, so it is paid once per cached prefix. Each
 * source is capped at `ledger.instructionsMaxChars` around a gap; its header names the system entry
 * that `advisor_expand` returns them from (Pi 1.x), or, when the host gave them (Pi 0.73), the file the
 * advisor can read.
 */

import type { Instruction } from "../reducers/index.ts";
import { relativePath } from "../reducers/index.ts";
import type { LedgerConfig } from "./ledger-section.ts";
import { INSTRUCTIONS_INTRO, TAGS } from "./model-text.ts";
import { neutralise } from "./neutralise.ts";
import { ordinalId } from "./ordinal.ts";
import { capWithGap, oneLine } from "./text-shape.ts";

/** Where the instructions of a request come from: the branch's system entry (`pos`), or the host (none). */
export interface InstructionSource {
	pos?: number;
	items: readonly Instruction[];
}

export function renderInstructions(
	source: InstructionSource,
	config: LedgerConfig,
	cwd: string | undefined,
): string | undefined {
	// 0 leaves them out (ledger.instructionsMaxChars).
	if (source.items.length === 0 || config.instructionsMaxChars <= 0) return undefined;
	const id = source.pos === undefined ? "" : ` #${ordinalId(source.pos)}`;
	const blocks = source.items.map((item) => {
		const from = oneLine(neutralise(relativePath(item.source, cwd)));
		const text = capWithGap(neutralise(item.text.trim()), Math.max(0, config.instructionsMaxChars), undefined);
		return `[instructions${id} · ${from}]\n${text}\n`;
	});
	return `<${TAGS.instructions}>\n${INSTRUCTIONS_INTRO}\n${blocks.join("")}</${TAGS.instructions}>\n`;
}

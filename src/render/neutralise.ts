/**
 * Executor content is data. A file, a tool result or a user message that contains the
 * ledger's own framing (`</executor_log>`, a block header, a card line) must not be able to
 * close the log or forge a block, so such text is defused before it is placed in a block.
 *
 * Both rewrites keep the text readable and its length unchanged or +1 per line, and they
 * only touch text that imitates framing.
 */

import { HEADER_WORDS, PROSE_MARK, TAGS } from "./model-text.ts";

const TAG_NAMES = Object.values(TAGS).join("|");
/** `<executor_log>`, `</ question >`, any case: the angle brackets become ‹ › so no tag can open or close. */
const TAG_RE = new RegExp(`<(\\s*/?\\s*(?:${TAG_NAMES})\\s*)>`, "gi");

const HEADER_WORD_RE = HEADER_WORDS.map((w) => w.replace(/ /g, "\\s+")).join("|");
/**
 * A line that reads as a block header (`[user #…`, `[tool …`) or as a card (`#id tool …`: an id-like
 * token, so `#a1b2 edit` or `#fix it` could pass for one, a markdown heading `## Notes` could not).
 * Such lines get a leading backslash: visibly quoted, no longer at the start of a line. Leading
 * blanks stay on their line (`[ \t]`, not `\s`), so an empty line before a heading is left alone.
 */
const HEADER_LINE_RE = new RegExp(
	`^(?=[ \\t]*\\[(?:${HEADER_WORD_RE})[\\s\\]#]|[ \\t]*#[A-Za-z0-9_.:-]+[ \\t]+\\S|[ \\t]*${PROSE_MARK})`,
	"gim",
);

export function neutralise(text: string): string {
	if (
		text.indexOf("<") === -1 &&
		text.indexOf("[") === -1 &&
		text.indexOf("#") === -1 &&
		text.indexOf(PROSE_MARK) === -1
	)
		return text;
	return text.replace(TAG_RE, "‹$1›").replace(HEADER_LINE_RE, "\\");
}

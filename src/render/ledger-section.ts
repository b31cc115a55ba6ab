/**
 * The `ledger` section of advisor.json (docs/configuration.md): how much of the branch reaches the
 * advisor verbatim. Schema, defaults and type in one place, beside the renderer that applies them
 * (blocks.ts, request-assembly.ts, log-cut.ts); the adapter's loader checks each key against this schema on its own.
 */

import { type Static, Type } from "@sinclair/typebox";

export const LedgerSchema = Type.Object({
	/** Newest tool rounds of the open segment rendered verbatim; every other round is a one-line card. */
	tailToolCalls: Type.Integer({ minimum: 0 }),
	/** Cap per verbatim part (call arguments, reasoning, prose, the question, advice). */
	tailMaxChars: Type.Integer({ minimum: 1 }),
	/**
	 * Cap on each verbatim tool result in the appendix. The appendix is never cached, so its results
	 * are capped tighter than the other verbatim parts; the text past the cap stays expandable.
	 */
	tailResultMaxChars: Type.Integer({ minimum: 1 }),
	/** A longer user message keeps head and tail around an expandable gap. */
	userMessageMaxChars: Type.Integer({ minimum: 1 }),
	/** Visible extension messages are previewed up to this many characters. */
	customPreviewChars: Type.Integer({ minimum: 0 }),
	/**
	 * Older executor prose in the log, and the output of the user's `!` runs, keep head and tail
	 * around an expandable gap; the newest prose is whole in the appendix.
	 */
	proseMaxChars: Type.Integer({ minimum: 0 }),
	/**
	 * Each of the user's standing instructions (a context file such as AGENTS.md, an appended system
	 * prompt) keeps head and tail around an expandable gap past this many characters.
	 */
	instructionsMaxChars: Type.Integer({ minimum: 0 }),
	/**
	 * The size the log is held to, in tokens (render/log-cut.ts): past it, its oldest entries are
	 * left out in one large step and a stand-in keeps their facts; 0 keeps every entry.
	 */
	logTargetTokens: Type.Integer({ minimum: 0 }),
});

export type LedgerConfig = Static<typeof LedgerSchema>;

export const DEFAULT_LEDGER_CONFIG: Readonly<LedgerConfig> = Object.freeze({
	tailToolCalls: 1,
	tailMaxChars: 8000,
	tailResultMaxChars: 1000,
	userMessageMaxChars: 20000,
	customPreviewChars: 500,
	proseMaxChars: 300,
	instructionsMaxChars: 4000,
	logTargetTokens: 10000,
});

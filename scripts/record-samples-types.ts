// The scenario language of scripts/record-samples.ts: what a recorded sample session is made of.
// Shared by the short feature scenarios (scripts/record-samples.ts) and the long one
// (scripts/record-samples-long.ts).

import type { Context } from "@mariozechner/pi-ai";
import type { AgentSession } from "@mariozechner/pi-coding-agent";
import type { FeatureName } from "./sample-features.ts";

export interface Call {
	tool: string;
	/** A function is evaluated against the request the turn answers (advisor turns: ids from the ledger). */
	args: Record<string, unknown> | ((context: Context) => Record<string, unknown>);
}

/** One scripted assistant message. Several `calls` = parallel tool calls in one message. */
export interface Turn {
	thinking?: string;
	text?: string;
	calls?: Call[];
	/** A provider error instead of a reply (advisor turns). */
	error?: string;
	/** An executor turn that exists only with the advisor extension (it calls advisor()). */
	advisor?: boolean;
	/** Switch the executor to this model (same provider) just before this turn is answered. */
	switchModel?: string;
}

type ThinkingLevel = Parameters<AgentSession["setThinkingLevel"]>[0];

export type Step = (
	| {
			kind: "prompt";
			text: string;
			turns: Turn[];
			advisorTurns?: Turn[];
			/**
			 * The advisor's answer to the completion review of this prompt's final answer (scenarios
			 * with `review` on): the recorder waits for the review to settle before the next step.
			 */
			reviewTurns?: Turn[];
	  }
	| { kind: "userBash"; command: string; excludeFromContext?: boolean }
	| { kind: "extMessage"; customType: string; content: string; display: boolean; details?: unknown }
	| { kind: "extEntry"; customType: string; data: unknown }
	| { kind: "activateTools"; tools: string[] }
	| { kind: "setModel"; modelId: string }
	| { kind: "thinkingLevel"; level: ThinkingLevel }
	/** session.compact(); `turnPrefixSummary` = expect a split-turn cut (Pi then asks for two summaries). */
	| { kind: "compact"; instructions?: string; summary: string; turnPrefixSummary?: string }
	| { kind: "navigate"; toUserMessageStartingWith: string; summary: string; label?: string }
	| { kind: "sessionName"; name: string }
) & { advisor?: boolean };

export interface Scenario {
	name: string;
	/** Sub-folder of the output folder the file is written to (default: the output folder itself). */
	dir?: string;
	description: string;
	/** What the advisor calls add to the description (recorded with the extension only). */
	advisorDescription?: string;
	/** Repo files on top of the base repo (path -> text, or Buffer for binary). */
	files?: Record<string, string | Buffer>;
	/** `files` is the whole repo: the base repo (tinycalc) is not laid down. */
	ownRepo?: boolean;
	settings?: { keepRecentTokens?: number };
	steps: Step[];
	features: FeatureName[];
	/** Features only the advisor extension produces (checked when it was loaded). */
	advisorFeatures?: FeatureName[];
	/** advisor.json keys on top of ADVISOR_CONFIG for this scenario (e.g. `review`). */
	advisorConfig?: Record<string, unknown>;
}

/** The visible message a delivered completion review becomes in the executor's context. */

import { CUSTOM_TYPES, type ReviewMessageDetails, type Severity } from "../events/index.ts";
import { REVIEW_MESSAGE } from "./model-text.ts";

export interface ReviewMessage {
	customType: string;
	content: string;
	display: true;
	details: ReviewMessageDetails;
}

export interface ReviewMessageInput {
	advice: string;
	answerEntryId: string;
	/** How the review is delivered (a shown ReviewDelivery). */
	delivery: { severity: Severity; triggerTurn: boolean };
	usage?: unknown;
	advisorModel?: string;
	effort?: string;
}

/** The visible `advisor-review` custom message (content = REVIEW_MESSAGE(advice)). */
export function reviewMessage(input: ReviewMessageInput): ReviewMessage {
	const details: ReviewMessageDetails = {
		advice: input.advice,
		severity: input.delivery.severity,
		answerEntryId: input.answerEntryId,
		triggerTurn: input.delivery.triggerTurn,
	};
	if (input.usage !== undefined) details.usage = input.usage;
	if (input.advisorModel !== undefined) details.advisorModel = input.advisorModel;
	if (input.effort !== undefined) details.effort = input.effort;
	return { customType: CUSTOM_TYPES.review, content: REVIEW_MESSAGE(input.advice), display: true, details };
}

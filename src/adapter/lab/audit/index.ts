/**
 * The fact audit: which facts of a branch (user words, commands, failures, files, names, advice…)
 * a request carries as text, along a branch from point to point, and which of them the executor
 * lost at its compactions (docs/request-format.md#the-fact-audit). The lab's instrument, never the
 * extension's: replay and render use it to judge a request, the request is never built from it.
 */

export {
	type AnchorIndex,
	createAnchorIndex,
	dropAnchors,
	eachOccurrence,
	fileAnchors,
	indexedCount,
	shortItems,
} from "./anchor-index.ts";
export { baselineAuditUnits } from "./audit-units.ts";
export { auditBranch, type BranchAudit } from "./branch-audit.ts";
export {
	type AuditMemo,
	type AuditSide,
	type AuditUnits,
	addCounts,
	auditRequest,
	auditUnits,
	carriedShare,
	createAuditMemo,
	emptyCounts,
	type FactCounts,
	type FactTally,
	requestUnits,
	unitsOf,
} from "./fact-audit.ts";
export {
	branchFacts,
	emptyFacts,
	FACT_CATEGORIES,
	type Fact,
	type FactCategory,
	type FactState,
	factsSinceHorizon,
	foldFacts,
	type HorizonFacts,
	holdsFact,
	lostFacts,
	replacedFacts,
	replacedSources,
} from "./facts.ts";

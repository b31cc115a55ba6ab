/**
 * Redaction (docs/privacy.md): credentials in the texts events carry become `[redacted: <kind>]`
 * before anything downstream sees them, and an executor's read of a path the deny list covers is
 * withheld whole. Pure and deterministic.
 */

export { isCredentialName } from "./assignment.ts";
export { createDenyMatcher, DEFAULT_DENY_PATTERNS, type DenyMatcher } from "./deny.ts";
export { compileGlob, type GlobMatcher, normalisePattern } from "./glob.ts";
export {
	countMarks,
	markFor,
	type Redacted,
	redactText,
	redactValue,
	redactValueWithCount,
	redactWithCount,
} from "./redactor.ts";
export { backtrackingRisk, type RegexRisk } from "./regex-safety.ts";
export { REDACTION_RULES, type RedactionRule } from "./rules.ts";
export {
	type AllowEntry,
	type CustomPattern,
	DEFAULT_PRIVACY,
	type PrivacyFile,
	PrivacySchema,
	type PrivacySettings,
	privacyFingerprint,
	privacyWarnings,
	type ResolvedPrivacy,
	resolvePrivacy,
} from "./settings.ts";
export {
	denyMatcherFor,
	isDeniedRead,
	pathArgument,
	READING_TOOLS,
	WITHHELD_READ_TEXT,
	workspacePath,
} from "./withhold.ts";

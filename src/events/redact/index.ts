/**
 * Redaction (docs/privacy.md): credentials in the texts events carry become `[redacted: <kind>]`
 * before anything downstream sees them. Pure and deterministic.
 */

export { isCredentialName } from "./assignment.ts";
export {
	countMarks,
	markFor,
	type Redacted,
	redactText,
	redactValue,
	redactValueWithCount,
	redactWithCount,
} from "./engine.ts";
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

/**
 * The `privacy` section of advisor.json (docs/privacy.md). Its schema, defaults, type and per-entry
 * validation live with the rule that applies them, in the core (events/redact/settings.ts), because
 * redaction happens where session entries become events. Unlike the other sections, a bad entry is
 * reported by itself (a pattern that does not compile, or could backtrack without bound, says so),
 * and a bad `redact` value leaves redaction on.
 */

import { type PrivacySettings, resolvePrivacy } from "../../../events/index.ts";

export { DEFAULT_PRIVACY, PrivacySchema, type PrivacySettings } from "../../../events/index.ts";

/** The section's settings; each problem adds one line to `warnings`. */
export function readPrivacy(value: unknown, warnings: string[]): PrivacySettings {
	const resolved = resolvePrivacy(value);
	warnings.push(...resolved.warnings);
	return resolved.settings;
}

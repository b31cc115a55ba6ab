/**
 * Placeholders against passwords: a run of x's is documentation's stand-in only when it is one case
 * and a fair share of the value (src/events/redact/plausible.ts `isPlaceholder`).
 */

import { describe, expect, it } from "vitest";
import { redactText } from "../../../src/events/redact/index.ts";
import { isPlaceholder, isSecretValue } from "../../../src/events/redact/plausible.ts";
import { DEFAULT_PRIVACY } from "../../../src/events/redact/settings.ts";

describe("a run of x's", () => {
	it.each([
		"xxxxxxxx",
		"sk-xxxxxxxxxxxxxxxx",
		"AKIAXXXXXXXXXXXXXXXX",
		"ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"xxxx-xxxx-xxxx",
		"abcd1234xxxx",
	])("%s is a placeholder", (value) => {
		expect(isPlaceholder(value)).toBe(true);
		expect(isSecretValue(value, "env")).toBe(false);
	});

	it.each([
		// Mixed case: random letters, not a stand-in.
		"H1HczqAB~iGXxxxKfMh^",
		// One case, but 4 of 24 characters: a random password can hold that.
		"q7Rm2xxxxZp9Lw4Tk8Vn3Hs6",
	])("%s is a password", (value) => {
		expect(isPlaceholder(value)).toBe(false);
		expect(isSecretValue(value, "env")).toBe(true);
		expect(redactText(`API_TOKEN=${value}`, DEFAULT_PRIVACY)).toBe("API_TOKEN=[redacted: secret-assignment]");
	});
});

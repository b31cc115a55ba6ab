import { describe, expect, test } from "vitest";
import { createDenyMatcher, DEFAULT_DENY_PATTERNS } from "../../../src/events/redact/deny.ts";

describe("deny matcher", () => {
	const denied = createDenyMatcher(DEFAULT_DENY_PATTERNS);
	test.each([
		[".env", ".env"],
		["config/.env", ".env"],
		[".env.local", ".env.*"],
		["secrets/.env/x", ".env"],
		["deep/a/b/id_rsa", "id_rsa*"],
		["keys/id_rsa.pub", "id_rsa*"],
		["certs/server.pem", "*.pem"],
		["CERTS/SERVER.PEM", "*.pem"],
		["x.key", "*.key"],
		["store.p12", "*.p12"],
		["store.pfx", "*.pfx"],
	])("%s is denied by %s", (path, pattern) => {
		expect(denied(path)).toBe(pattern);
	});
	test.each(["README.md", "src/env.ts", "environment/x", "keys.txt", "", "envy/.envelope"])(
		"%s is allowed",
		(path) => {
			expect(denied(path)).toBeUndefined();
		},
	);

	test("a configured list replaces the default; slash patterns deny a subtree", () => {
		const custom = createDenyMatcher(["private/data", "*.sqlite"]);
		expect(custom(".env")).toBeUndefined();
		expect(custom("private/data")).toBe("private/data");
		expect(custom("private/data/x/y.txt")).toBe("private/data");
		expect(custom("other/private/data")).toBeUndefined();
		expect(custom("db/app.sqlite")).toBe("*.sqlite");
		expect(createDenyMatcher([])("id_rsa")).toBeUndefined();
	});
});

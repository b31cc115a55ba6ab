/**
 * The `tools` section of advisor.json (docs/configuration.md): its schema, defaults and type in one
 * place, beside the tools that apply it (index.ts `advisorToolsMode` and `createAdvisorTools`, the
 * deny list in git-exclude.ts). config/load.ts reads the section key by key against this schema.
 */

import { type Static, Type } from "@sinclair/typebox";
import { DEFAULT_DENY_PATTERNS } from "./git-exclude.ts";

export const ToolsSchema = Type.Object({
	/** false → no tools: the advisor answers in one request. */
	enabled: Type.Boolean(),
	/** Tool calls a consultation may run; 0 → no tools. */
	maxRounds: Type.Integer({ minimum: 0 }),
	/** Cap on each tool result after Pi's own limits. */
	maxResultChars: Type.Integer({ minimum: 1 }),
	/** false leaves only advisor_expand. */
	repo: Type.Boolean(),
	/** A configured list replaces the default; it is never merged with it. */
	denyPatterns: Type.Array(Type.String({ minLength: 1 })),
});

export type ToolsConfig = Static<typeof ToolsSchema>;

export const DEFAULT_TOOLS_CONFIG: Readonly<ToolsConfig> = Object.freeze({
	enabled: true,
	maxRounds: 3,
	maxResultChars: 12000,
	repo: true,
	denyPatterns: [...DEFAULT_DENY_PATTERNS],
});

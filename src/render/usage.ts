/** Usage arithmetic shared by the renderer (replayed advice carries a usage) and the adapter. */

import type { Usage } from "@mariozechner/pi-ai";

export function zeroUsage(): Usage {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

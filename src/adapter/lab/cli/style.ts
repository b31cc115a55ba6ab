/** Colours for what the CLI prints: ANSI on a terminal, none otherwise. */

export interface Style {
	bold(text: string): string;
	dim(text: string): string;
	red(text: string): string;
	green(text: string): string;
	yellow(text: string): string;
}

export const plain: Style = { bold: (t) => t, dim: (t) => t, red: (t) => t, green: (t) => t, yellow: (t) => t };

function sgr(open: number, close: number): (text: string) => string {
	return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const ansi: Style = { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39) };

/** Colours only on a terminal, and never when NO_COLOR is set to anything non-empty (no-color.org). */
export function styleFor(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): Style {
	const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
	return isTTY === true && !noColor ? ansi : plain;
}

/**
 * The one exhaustiveness check: every `switch` over a discriminated union ends with
 * `default: return assertNever(value, "what it is")`. The compiler proves the default
 * unreachable; at run time a value from a newer writer fails loudly instead of falling through.
 */
export function assertNever(value: never, what: string): never {
	throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}

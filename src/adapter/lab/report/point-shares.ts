/**
 * Shares of the previous request reused by the next one, in each caching model: a point's, and a watch
 * review's (its own file so the replay report and the watch report both read it without a circle).
 */
export interface PointShares {
	tokenPrefix: number;
	breakpoint: number;
	breakpointNoBridges: number;
}

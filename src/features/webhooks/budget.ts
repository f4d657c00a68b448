/** How much time something may take per second, measured over a sliding one-second window. */
export class Budget {
  private spent: { at: number; ms: number }[] = [];

  constructor(private readonly perSecondMs: number) {}

  available(): boolean {
    const now = performance.now();
    this.spent = this.spent.filter((entry) => now - entry.at < 1_000);
    return this.spent.reduce((sum, entry) => sum + entry.ms, 0) < this.perSecondMs;
  }

  spend(ms: number): void {
    this.spent.push({ at: performance.now(), ms });
  }
}

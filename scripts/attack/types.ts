/** What one attack reports: its name, whether every bound held, and the figures behind that. */
export interface AttackResult {
  name: string;
  held: boolean;
  figures: Record<string, number | string>;
}

/** What the domain knows of a plan: read from configuration (PLANS_JSON or the defaults). */
export interface PlanSettings {
  apiAccess: boolean;
  retentionDays: number;
  monthlyMinutes: number;
}

/** Who is calling: travels with the run to every policy predicate and every tool. */
export interface IUserContext {
  userId: string;
  /** Selects the approvals floor of `IToolPolicyConfig.profiles`. */
  profile?: string;
  roles?: string[];
  /** Free data for predicates and tools (tenant, plan, locale, ...). Must be JSON. */
  attributes?: Record<string, unknown>;
}

/**
 * Which models are cooling down in this process, after a 429, 5xx, timeout or connection error: the
 * router passes over a cooling model while another can answer. In memory, per worker: a cooldown is a
 * guess that the model is unwell, cheap to lose; the fleet-wide pause after a 429 with a delay is Redis's.
 */
export class ModelCooldowns {
  readonly #coolingUntil = new Map<string, number>();

  /** Keeps `model` out of rotation until `until` (never shortens a longer cooldown). */
  coolDown(model: string, until: number): void {
    this.#coolingUntil.set(model, Math.max(until, this.#coolingUntil.get(model) ?? 0));
  }

  coolingUntil(model: string): number | undefined {
    return this.#coolingUntil.get(model);
  }

  /** A model that answered is well again. */
  recovered(model: string): void {
    this.#coolingUntil.delete(model);
  }
}

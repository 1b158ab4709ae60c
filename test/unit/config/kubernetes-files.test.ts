/**
 * deploy/kubernetes/ against the Kubernetes and KEDA schemas (kubernetes-models and
 * @kubernetes-models/keda ship them; validation runs offline), plus what the schemas cannot say:
 * probes on the right paths, graceful termination matching TOLLGATE_SHUTDOWN_TIMEOUT_MS, budgets that
 * select a Deployment, and KEDA scaling only on jobs that wait for a worker.
 */
import { readdirSync, readFileSync } from "node:fs";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

const directory = new URL("../../../deploy/kubernetes/", import.meta.url);
const manifestFiles = readdirSync(directory).filter(
  (name) => name.endsWith(".yaml") && name !== "kustomization.yaml",
);

interface IManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: a manifest is checked by the schema, then read field by field
  spec?: any;
  data?: Record<string, string>;
}

const manifests: Array<{ file: string; manifest: IManifest }> = manifestFiles.flatMap((file) =>
  parseAllDocuments(readFileSync(new URL(file, directory), "utf8")).map((document) => ({
    file,
    manifest: document.toJS() as IManifest,
  })),
);

/** The schema model of each kind the directory uses; `validate()` throws with the failing path. */
const models: Record<string, new (data: never) => { validate(): void }> = {
  "apps/v1 Deployment": Deployment,
  "policy/v1 PodDisruptionBudget": PodDisruptionBudget,
  "v1 ConfigMap": ConfigMap,
  "v1 Service": Service,
  "keda.sh/v1alpha1 ScaledObject": ScaledObject,
};

function validate(manifest: IManifest): void {
  const Model = models[`${manifest.apiVersion} ${manifest.kind}`];
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest as never).validate();
}

const ofKind = (kind: string) =>
  manifests.map((entry) => entry.manifest).filter((manifest) => manifest.kind === kind);

describe("deploy/kubernetes", () => {
  it.each(
    manifests.map((entry) => [
      `${entry.file}: ${entry.manifest.kind} ${entry.manifest.metadata.name}`,
      entry.manifest,
    ]),
  )("%s validates against its schema", (_name, manifest) => {
    expect(() => validate(manifest as IManifest)).not.toThrow();
  });

  it("the validator refuses what the schema forbids (so the checks above mean something)", () => {
    const [worker] = ofKind("Deployment");
    const broken = structuredClone(worker!);
    broken.spec.template.spec.containers[0].ports[0].containerPort = "9464";
    expect(() => validate(broken)).toThrow(/containerPort must be integer/);
    const [scaledObject] = ofKind("ScaledObject");
    const noTarget = structuredClone(scaledObject!);
    delete noTarget.spec.scaleTargetRef;
    expect(() => validate(noTarget)).toThrow(/scaleTargetRef/);
  });

  it("kustomization.yaml lists every manifest", () => {
    const kustomization = parseAllDocuments(
      readFileSync(new URL("kustomization.yaml", directory), "utf8"),
    )[0]!.toJS() as {
      resources: string[];
    };
    expect([...kustomization.resources].sort()).toEqual([...manifestFiles].sort());
  });

  const [configuration] = ofKind("ConfigMap");
  const shutdownSeconds = Number(configuration!.data!.TOLLGATE_SHUTDOWN_TIMEOUT_MS) / 1000;

  it.each(ofKind("Deployment").map((deployment) => [deployment.metadata.name, deployment]))(
    "%s: probes on /healthz and /readyz, resources, and a grace period above the shutdown timeout",
    (_name, deployment) => {
      const pod = (deployment as IManifest).spec.template.spec;
      const [container] = pod.containers;
      expect(container.livenessProbe.httpGet.path).toBe("/healthz");
      expect(container.readinessProbe.httpGet.path).toBe("/readyz");
      expect(container.resources.requests).toMatchObject({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
      expect(container.resources.limits.memory).toEqual(expect.any(String));
      expect(container.envFrom).toContainEqual({ configMapRef: { name: configuration!.metadata.name } });
      // Active jobs get the shutdown timeout, then are handed back, before SIGKILL.
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(shutdownSeconds + 5);
      expect(pod.terminationGracePeriodSeconds).toBeLessThanOrEqual(shutdownSeconds + 30);
    },
  );

  it("every PodDisruptionBudget selects the pods of a Deployment", () => {
    const podLabels = ofKind("Deployment").map((deployment) => deployment.spec.template.metadata.labels);
    const budgets = ofKind("PodDisruptionBudget");
    expect(budgets.length).toBe(ofKind("Deployment").length);
    for (const budget of budgets) {
      const selector = budget.spec.selector.matchLabels as Record<string, string>;
      expect(
        podLabels.some((labels) => Object.entries(selector).every(([key, value]) => labels[key] === value)),
      ).toBe(true);
    }
  });

  it("KEDA scales the worker Deployment on waiting jobs only, per queue, for this deployment's prefix", () => {
    const [scaledObject] = ofKind("ScaledObject");
    expect(ofKind("Deployment").map((deployment) => deployment.metadata.name)).toContain(
      scaledObject!.spec.scaleTargetRef.name,
    );
    const queries: string[] = scaledObject!.spec.triggers.map(
      (trigger: { type: string; metadata: { query: string } }) => {
        expect(trigger.type).toBe("prometheus");
        return trigger.metadata.query;
      },
    );
    expect(queries.map((query) => /queue="(\w+)"/.exec(query)?.[1]).sort()).toEqual([
      "approvals",
      "runs",
      "tools",
    ]);
    for (const query of queries) {
      expect(query).toContain('state=~"wait|prioritized"');
      expect(query).not.toMatch(/waiting-children|delayed/);
      expect(query).toContain(`prefix="${configuration!.data!.TOLLGATE_PREFIX}"`);
    }
  });
});

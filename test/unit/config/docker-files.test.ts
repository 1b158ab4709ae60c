import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { envVariableNames } from "../../../src/config/env.js";

/*
 * No Docker engine runs where the tests run, so the compose file and the Dockerfile are checked as
 * text: the structure production depends on, and that every variable they set is one Tollgate reads.
 */

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

interface IComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  healthcheck?: { test?: string[] | string };
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition?: string }> | string[];
  volumes?: string[];
  ports?: string[];
}

const compose = parse(read("docker-compose.yml"), { merge: true }) as {
  services: Record<string, IComposeService>;
};
const services = compose.services;
const tollgateServices = ["api", "worker", "model"] as const;
/** Variables a container may set that are not Tollgate's own. */
// Read by the platform or OpenTelemetry's standard variables (docs/TRACING.md), not by Tollgate's schema.
const platformVariables = new Set(["NODE_ENV", "OTEL_EXPORTER_OTLP_ENDPOINT"]);

function service(name: string): IComposeService {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
}

function commandText(entry: IComposeService): string {
  return Array.isArray(entry.command) ? entry.command.join(" ") : (entry.command ?? "");
}

describe("docker-compose.yml", () => {
  it("has redis, api, worker, model and prometheus, and Jaeger for traces", () => {
    expect(Object.keys(services).sort()).toEqual(["api", "jaeger", "model", "prometheus", "redis", "worker"]);
  });

  it("sends traces to Jaeger only when asked: its profile, and an OTLP endpoint left empty by default", () => {
    expect((service("jaeger") as { profiles?: string[] }).profiles).toEqual(["tracing"]);
    for (const name of ["api", "worker"])
      expect(service(name).environment?.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(
        ["$", "{OTEL_EXPORTER_OTLP_ENDPOINT:-}"].join(""),
      );
  });

  it("runs Redis with AOF persistence and no eviction, on a volume, with a healthcheck", () => {
    const redis = service("redis");
    const command = commandText(redis);
    expect(command).toMatch(/--appendonly yes/);
    expect(command).toMatch(/--appendfsync (everysec|always)/);
    expect(command).toMatch(/--maxmemory-policy noeviction/);
    // A maxmemory below the container's memory limit: full means refused writes, not an OOM kill.
    expect(command).toMatch(/--maxmemory \$\{REDIS_MAXMEMORY:-768mb\}/);
    expect((redis as { mem_limit?: string }).mem_limit).toMatch(/^\$\{REDIS_MEMORY_LIMIT:-1g\}$/);
    expect(redis.volumes?.some((volume) => volume.endsWith(":/data"))).toBe(true);
    expect(JSON.stringify(redis.healthcheck?.test)).toContain("ping");
  });

  it("builds the Tollgate services from the Dockerfile and runs the CLI's commands", () => {
    for (const name of tollgateServices) {
      const entry = service(name);
      expect(entry.build, name).toBeDefined();
      expect(entry.image, name).toBeTruthy();
    }
    expect(commandText(service("api"))).toMatch(/^api --gateway \S+/);
    expect(commandText(service("worker"))).toMatch(/^worker --gateway \S+/);
    expect(commandText(service("model"))).toMatch(/^model-server --port 4010 --host 0\.0\.0\.0$/);
  });

  it("loads a gateway module that exists", () => {
    for (const name of ["api", "worker"]) {
      const gatewayPath = commandText(service(name)).split(" ")[2] ?? "";
      expect(() => read(gatewayPath), `${name} --gateway ${gatewayPath}`).not.toThrow();
    }
  });

  it("scales the workers with replicas and gives them time to hand back their jobs", () => {
    const worker = service("worker");
    expect(worker.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(worker).toMatchObject({ stop_grace_period: expect.stringMatching(/^\d+s$/) });
    // Replicas cannot share a published port: Prometheus reaches each through the service name.
    expect(worker.ports).toBeUndefined();
  });

  it("checks the API's health on /healthz and the worker's on its metrics port's /healthz", () => {
    expect(JSON.stringify(service("api").healthcheck?.test)).toContain("/healthz");
    // /metrics answers 200 even when the worker can no longer reach Redis; /healthz does not.
    expect(JSON.stringify(service("worker").healthcheck?.test)).toContain(":9464/healthz");
    expect(service("api").depends_on).toMatchObject({ redis: { condition: "service_healthy" } });
  });

  it("requires API tokens rather than shipping a default secret", () => {
    expect(service("api").environment?.TOLLGATE_API_TOKENS).toMatch(/^\$\{TOLLGATE_API_TOKENS:\?/);
  });

  it("points the workers at the scripted model unless told otherwise, and at the shared Redis", () => {
    const environment = service("worker").environment ?? {};
    // Compose's own interpolation syntax, kept literally in the file.
    expect(environment.OPENAI_BASE_URL).toBe(["$", "{OPENAI_BASE_URL:-http://model:4010/v1}"].join(""));
    expect(environment.REDIS_URL).toBe("redis://redis:6379");
    expect(service("api").environment?.REDIS_URL).toBe("redis://redis:6379");
  });

  it("sets only environment variables the Tollgate schema knows", () => {
    for (const name of tollgateServices) {
      for (const variable of Object.keys(service(name).environment ?? {})) {
        const known = (envVariableNames as string[]).includes(variable) || platformVariables.has(variable);
        expect(known, `${name}: ${variable}`).toBe(true);
      }
    }
  });

  it("runs Prometheus with deploy/prometheus.yml and its alert rules", () => {
    const volumes = service("prometheus").volumes ?? [];
    expect(volumes).toContain("./deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro");
    expect(volumes).toContain("./deploy/alerts.yml:/etc/prometheus/alerts.yml:ro");
    const prometheusConfig = read("deploy/prometheus.yml");
    expect(prometheusConfig).toContain("api:3000");
    expect(prometheusConfig).toMatch(/names: \["worker"\]/);
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const stages = dockerfile.split(/^FROM /m).slice(1);

  it("builds in one stage and runs from another", () => {
    expect(stages).toHaveLength(2);
    const [build = "", runtime = ""] = stages;
    expect(build).toMatch(/RUN npm ci\b/);
    expect(build).toMatch(/RUN npm run build/);
    expect(runtime).toMatch(/RUN npm ci --omit=dev/);
    expect(runtime).toMatch(/COPY --from=build \/app\/dist/);
  });

  it("runs as the unprivileged node user through the CLI", () => {
    const runtime = stages[1] ?? "";
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^ENTRYPOINT \["node", "bin\/tollgate\.js"\]$/m);
  });

  it("copies what the compose services load", () => {
    for (const path of ["bin", "examples", "src"]) expect(stages[1]).toContain(`COPY ${path} ./${path}`);
  });
});

describe(".dockerignore", () => {
  it("keeps node_modules, dist and the git history out of the build context", () => {
    const ignored = read(".dockerignore").split("\n");
    for (const entry of ["node_modules", "dist", ".git"]) expect(ignored).toContain(entry);
  });
});

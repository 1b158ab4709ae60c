# syntax=docker/dockerfile:1
# One image for every Tollgate role: the entrypoint is `tollgate`, the command picks the role
# (`api --gateway …`, `worker --gateway …`, `model-server`). See docs/CONFIGURATION.md.

ARG NODE_VERSION=20

# Build: all dependencies, then the TypeScript compile to dist/.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Runtime: production dependencies only (tsx among them, to load gateways written in TypeScript),
# the compiled CLI, and the example gateway with the sources it imports.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The reviewers' console: static files the API serves at /console/.
COPY console ./console
COPY src ./src
COPY examples ./examples
# Your own gateway goes under /app/gateways (mounted or copied in a derived image): from there
# `import { defineGateway } from "tollgate"` resolves to this package's build.
RUN mkdir -p /app/gateways
# Services listen on every address inside the container; publish only what you need.
ENV TOLLGATE_HOST=0.0.0.0
USER node
# 3000: API; 9464: worker /metrics; 4010: scripted model.
EXPOSE 3000 9464 4010
ENTRYPOINT ["node", "bin/tollgate.js"]
CMD ["--help"]

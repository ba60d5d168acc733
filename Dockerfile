# One image for the api, the worker and the operator CLI (`svc`), on Node.js 24 LTS (package.json
# engines; the same version scripts/lib.sh installs where the machine's node is older).
FROM node:24.19.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# `npx svc`'s launcher, a `file:` dependency (apps/cli/launcher/svc.js)
COPY apps/cli/launcher ./apps/cli/launcher
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24.19.0-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN ln -s /app/dist/apps/cli/src/main.js /usr/local/bin/svc && chmod +x /app/dist/apps/cli/src/main.js
# The worker's state folder (worker.state_dir, default .data/worker): service-health transitions kept
# across a crash; the container's own layer keeps it across a restart.
RUN mkdir -p /app/.data/worker && chown -R node:node /app/.data
USER node
CMD ["node", "dist/apps/api/src/main.js"]

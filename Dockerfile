# One image for every role: `--role api` (HTTP), `--role worker` (sends), or both (the default).
# Node 24 runs the server's TypeScript as it is (type stripping): there is no server build step.
FROM node:24-slim

WORKDIR /app

# Dependencies first, so a change of source does not reinstall them.
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/contracts/package.json packages/contracts/
COPY bench/package.json bench/
RUN npm ci --no-audit --no-fund

COPY . .
# The console, served by every API process from apps/web/dist.
RUN npm run build

ENV NODE_ENV=production
USER node
EXPOSE 3000
CMD ["node", "apps/server/src/main.ts"]

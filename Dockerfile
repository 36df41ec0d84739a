# syntax=docker/dockerfile:1
#
# The bridle gateway (`bridle serve`) as a container image.
#
# The binary is pure Go (modernc SQLite, go-git): built with CGO_ENABLED=0 it
# is static and needs nothing at run time, not even git or a shell, so the
# final stage is distroless/static (CA certificates, tzdata, a nonroot user).
#
#   docker build -t bridle:local .
#   docker build --build-arg BRIDLE_VERSION=v0.3.0 --build-arg BRIDLE_REVISION=$(git rev-parse HEAD) -t bridle:v0.3.0 .
#
# `bridle version` reports the module version Go stamps into the binary; the
# build context has no .git (see .dockerignore), so inside the image it says
# "dev". BRIDLE_VERSION and BRIDLE_REVISION only label the image.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
ENV CGO_ENABLED=0
COPY go.mod go.sum ./
# go.mod replaces some modules with the patched copies in third_party/.
COPY third_party ./third_party
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags='-s -w' -o /out/bridle ./cmd/bridle && \
    go build -trimpath -ldflags='-s -w' -o /out/bridle-sops ./cmd/bridle-sops
# bridle-sops is the vault's SOPS codec, a separate binary so that the cloud
# SDKs sops links stay out of bridle (bridle finds it beside itself).
# Empty directories for the volumes, so that a named volume mounted there
# starts owned by the nonroot user (distroless has no shell to chown with).
RUN mkdir -p /out/state /out/cache

FROM gcr.io/distroless/static-debian12:nonroot
ARG BRIDLE_VERSION=dev
ARG BRIDLE_REVISION=unknown
LABEL org.opencontainers.image.title="bridle" \
      org.opencontainers.image.description="Bridle gateway: one version-controlled ruleset per project, served to every coding agent over MCP" \
      org.opencontainers.image.source="https://github.com/bridle-dev/bridle" \
      org.opencontainers.image.url="https://github.com/bridle-dev/bridle" \
      org.opencontainers.image.version="${BRIDLE_VERSION}" \
      org.opencontainers.image.revision="${BRIDLE_REVISION}" \
      org.opencontainers.image.base.name="gcr.io/distroless/static-debian12:nonroot"
COPY --from=build /out/bridle /bridle
COPY --from=build /out/bridle-sops /bridle-sops
COPY --from=build --chown=65532:65532 /out/state /var/lib/bridle
COPY --from=build --chown=65532:65532 /out/cache /var/cache/bridle
# nonroot in distroless: uid and gid 65532.
USER 65532:65532
ENV BRIDLE_LISTEN=0.0.0.0:7777 \
    BRIDLE_STATE_DIR=/var/lib/bridle \
    BRIDLE_DATA_DIR=/var/lib/bridle/memory \
    BRIDLE_CACHE_DIR=/var/cache/bridle \
    BRIDLE_LOG_FORMAT=json
VOLUME ["/var/lib/bridle", "/var/cache/bridle"]
EXPOSE 7777
# Exec form: there is no shell. Docker keeps this; the OCI image format
# (podman's default) drops it, and docker-compose.yml states its own.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/bridle", "serve", "health", "--url", "http://127.0.0.1:7777/healthz"]
ENTRYPOINT ["/bridle"]
CMD ["serve"]

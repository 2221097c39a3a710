# tenantbench as a container image, to run it inside a Kubernetes cluster as
# a Job (docs/kubernetes.md): the driver beside the servers it measures, on
# the pod network. Multi-stage: the Go toolchain builds a static binary, the
# final image holds it and CA certificates only (the kubernetes provider
# needs no database program: the servers are the engine's own images).
#
#   docker build -t tenantbench:dev .      (or: buildah bud -t tenantbench:dev .)
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
# CGO off: a static binary that runs on the distroless base; nothing cmd/
# links needs C (DuckDB is in tests only).
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/tenantbench ./cmd/tenantbench

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tenantbench /usr/local/bin/tenantbench
COPY examples /usr/share/tenantbench/examples
# nonroot (65532): the kubernetes provider needs no privilege on its node;
# the local provider's cgroups would, and it is not what this image is for.
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/tenantbench"]

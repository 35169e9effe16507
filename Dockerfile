# The herdbench image: one static binary on distroless, as an unprivileged
# user. herdbench k8s's manifests run it (docs/distributed.md).
#
#   docker build -t herdbench:dev --build-arg VERSION=$(git describe --always) .
#   docker run --rm herdbench:dev version
#
# .ci/run builds its binary with the build stage's command, checks that it is
# static and runs it end to end: CGO off, so the binary links nothing at run
# time and runs on an image with no C library.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=v0.1.0-dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/herdbench ./cmd/herdbench

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/herdbench /herdbench
# distroless's nonroot user; the manifests run as it too (runAsUser 65532).
USER 65532:65532
ENTRYPOINT ["/herdbench"]

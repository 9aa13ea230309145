# rlm from source: docker build -t rlm . && docker run --rm rlm exec -c 'print(1 + 1)'
# (releases use release.Dockerfile with the binary goreleaser built).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/rlm ./cmd/rlm

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/rlm /usr/local/bin/rlm
USER nonroot
WORKDIR /work
EXPOSE 8088
ENTRYPOINT ["/usr/local/bin/rlm"]
CMD ["--help"]

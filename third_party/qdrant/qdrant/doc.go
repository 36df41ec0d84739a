/*
# Qdrant Go Client

Package provides a client for interfacing with the Qdrant - https://qdrant.tech/ gRPC API.

# Documentation

- Usage examples are available throughout the [Qdrant documentation] and [API Reference]

- [Godoc Reference]

[Qdrant documentation]: https://qdrant.tech/documentation/
[API Reference]: https://api.qdrant.tech/
[Godoc Reference]: https://pkg.go.dev/github.com/qdrant/go-client
*/
package qdrant

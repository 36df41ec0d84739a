package qdrant

import "sync"

// Bridle's patch. Upstream registers the descriptors of its eight generated
// files (~400 message types) with the protobuf registry in package init,
// ~300 KB and ~0.5 ms before main in every process that links the package,
// whether it talks to Qdrant or not. Bridle links it for its optional Qdrant
// memory store, and its hook runs before every tool call of every agent.
//
// The registration now runs once, on first use: every generated service
// client constructor (NewCollectionsClient, NewPointsClient, NewQdrantClient,
// NewSnapshotsClient — NewClient and NewGrpcClient go through them) and every
// Register…Server calls registerFiles before it returns. A message's
// reflection (proto.Marshal, its String method, an enum's String) before any
// of those has run is not supported; Bridle builds messages only to pass them
// to a client.
//
// It cannot run from the messages' ProtoReflect methods instead: building a
// file's descriptors resolves the Go types of the files it imports through
// their ProtoReflect and Descriptor methods, which would re-enter the Once.
var registerOnce sync.Once

// registerFiles runs each generated file's registration; each also
// registers the files it imports first, as upstream's init order did.
func registerFiles() {
	registerOnce.Do(func() {
		file_json_with_int_proto_init()
		file_qdrant_common_proto_init()
		file_collections_proto_init()
		file_collections_service_proto_init()
		file_points_proto_init()
		file_points_service_proto_init()
		file_snapshots_service_proto_init()
		file_qdrant_proto_init()
	})
}

// Registered reports whether the generated files' descriptors have been
// registered (Bridle's patch; for its tests).
func Registered() bool { return File_qdrant_proto != nil && File_points_proto != nil }

package qdrant

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// TestRegisteredOnFirstUse (Bridle's patch): nothing is registered at init;
// the first client or server registration registers every file, after
// which messages marshal and round-trip as upstream's do.
func TestRegisteredOnFirstUse(t *testing.T) {
	if Registered() {
		t.Fatal("the generated files were registered at init")
	}
	if _, err := protoregistry.GlobalFiles.FindFileByPath("points.proto"); err == nil {
		t.Fatal("points.proto is in the global registry before first use")
	}
	_ = NewPointsClient(nil)
	if !Registered() {
		t.Fatal("NewPointsClient did not register the generated files")
	}
	for _, path := range []string{"json_with_int.proto", "qdrant_common.proto", "collections.proto",
		"collections_service.proto", "points.proto", "points_service.proto", "snapshots_service.proto", "qdrant.proto"} {
		if _, err := protoregistry.GlobalFiles.FindFileByPath(path); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	_ = NewCollectionsClient(nil) // a second first use registers nothing twice (it would panic)
	in := &UpsertPoints{CollectionName: "c", Points: []*PointStruct{{
		Id:      NewIDUUID("5c56c793-69f3-4fbf-87e6-c4bf54c28c26"),
		Vectors: NewVectors(0.5, 0.25),
		Payload: NewValueMap(map[string]any{"kind": "memory", "n": 3}),
	}}}
	b, err := proto.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out UpsertPoints
	if err := proto.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(in, &out) {
		t.Fatalf("round trip: got %v, want %v", &out, in)
	}
	if got := Distance_Cosine.String(); got != "Cosine" {
		t.Fatalf("Distance_Cosine.String() = %q", got)
	}
}

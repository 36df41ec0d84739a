package kanboard

import "encoding/json"

var (
	jsonUnmarshal = json.Unmarshal
	jsonValid     = json.Valid
)

// Command baremcp is a bare go-sdk stdio server with one tool: the baseline
// bench/mcp.sh compares bridle mcp's cold start against.
package main

import (
	"context"
	"log"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type in struct{}

func main() {
	s := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "hello", Description: "says hello"},
		func(context.Context, *sdk.CallToolRequest, in) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		log.Print(err)
	}
}

// Command bridle compiles a project's canonical rules into every coding
// agent's instruction files and serves them to agents over MCP.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

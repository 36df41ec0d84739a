// Command hello is the smallest Go program: the floor any Go binary pays to
// start on this machine (the runtime's own start-up), which bench/startup.sh
// runs beside bridle's commands.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }

// Command pagecost measures what this machine charges a process for memory
// it touches for the first time: the mean cost of the first write to each
// page of a fresh anonymous mapping, beside a second write to the same pages.
// A short-lived Go command touches several hundred such pages (the runtime's
// heap, stacks and tables, package initialisation), so on a virtual machine
// whose first touches are slow this, not instructions, sets its start-up
// floor; bench/startup.sh prints it beside the commands' page-fault counts.
//
//	pagecost [-pages N] [-rounds R]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"
)

func main() {
	pages := flag.Int("pages", 4096, "pages a round maps and touches")
	rounds := flag.Int("rounds", 5, "rounds; the median is printed")
	flag.Parse()
	size := os.Getpagesize()
	var first, again []float64
	for range *rounds {
		m, err := syscall.Mmap(-1, 0, *pages*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pagecost:", err)
			os.Exit(1)
		}
		first = append(first, touch(m, size, 1))
		again = append(again, touch(m, size, 2))
		if err := syscall.Munmap(m); err != nil {
			fmt.Fprintln(os.Stderr, "pagecost:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("first write to a fresh page  %6.2f µs\n", median(first))
	fmt.Printf("second write to the same     %6.3f µs\n", median(again))
}

// touch writes one byte in each page of m and returns the mean microseconds
// a page took.
func touch(m []byte, size int, v byte) float64 {
	start := time.Now()
	for i := 0; i < len(m); i += size {
		m[i] = v
	}
	return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(len(m)/size)
}

func median(x []float64) float64 {
	slices.Sort(x)
	return x[len(x)/2]
}

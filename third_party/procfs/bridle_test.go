package procfs

import (
	"bytes"
	"os"
	"testing"
)

// TestLazyRegexps (Bridle's patch): the parsers whose regexps are compiled
// on first use read this process's /proc files and text as upstream's did.
func TestLazyRegexps(t *testing.T) {
	p, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.Limits()
	if err != nil {
		t.Fatal(err)
	}
	if l.OpenFiles <= 0 {
		t.Errorf("limits: open files = %d", l.OpenFiles)
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	infos, err := p.FileDescriptorsInfo()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 || infos[0].Pos == "" || infos[0].Flags == "" {
		t.Errorf("fdinfo: %+v", infos)
	}
	md, err := parseMDStat([]byte("Personalities : [raid1]\nmd0 : active raid1 sdb1[1] sda1[0]\n      1048512 blocks [2/2] [UU]\n\nunused devices: <none>\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(md) != 1 || md[0].Name != "md0" || md[0].DisksActive != 2 || md[0].BlocksTotal != 1048512 || len(md[0].Devices) != 2 {
		t.Errorf("mdstat: %+v", md)
	}
	slab, err := parseSlabInfo21(bytes.NewReader([]byte("slabinfo - version: 2.1\n# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\nkmalloc-64    1000   1024     64   64    1 : tunables    0    0    0 : slabdata     16     16      0\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(slab.Slabs) != 1 || slab.Slabs[0].Name != "kmalloc-64" || slab.Slabs[0].ObjActive != 1000 {
		t.Errorf("slabinfo: %+v", slab.Slabs)
	}
}

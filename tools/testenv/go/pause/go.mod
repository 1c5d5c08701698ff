module pelita.io/testenv/pause

go 1.22

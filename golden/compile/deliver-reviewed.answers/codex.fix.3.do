printf "// fixed: issue 7\n" >>main.go

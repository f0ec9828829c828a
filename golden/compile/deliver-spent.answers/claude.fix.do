printf "fixed\n" >>main.go

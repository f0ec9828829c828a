grep -v -e '^<<<<<<< ' -e '^=======$' -e '^>>>>>>> ' main.go >main.go.new
mv main.go.new main.go
git add main.go

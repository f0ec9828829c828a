touch fixed.txt

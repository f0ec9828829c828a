if [ -e .tried ]; then echo fixed >fixed.txt; else : >.tried; fi

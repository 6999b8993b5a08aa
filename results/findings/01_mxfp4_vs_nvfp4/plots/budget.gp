# fp4lab plot 'budget' (written by fp4lab; data inline).
# Re-render: gnuplot budget.gp   or   gnuplot -e "fmt='svg'" budget.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'budget.' . fmt
if (fmt eq 'svg') {
  set terminal svg noenhanced size 960,600 dynamic background rgb 'white' font 'Sans,12'
} else {
  set terminal pngcairo noenhanced size 960,600 font 'Sans,10'
}
set output out
set encoding utf8
set grid lc rgb '#dddddd'
set key below center horizontal Left reverse noautotitle
set offsets 0, 0, graph 0.06, graph 0.06
$b0 << EOD
1 2.04598828
EOD
$b1 << EOD
0.8 2.13920152
1 2.06842648
1.25 2.01172502
1.5 1.96113372
EOD
set arrow 1 from graph 0, first 2.04598828 to graph 1, first 2.04598828 nohead dt 2 lc rgb '#555555'
set label 2 '+9.9%' at 1.0989313, 2.04598828 point pt 6 ps 2 offset 1,1
set title "Final validation loss vs token budget\nmean over seeds; dashed: the baseline's final loss at its base budget; circle: matched budget"
set format x '%.3s%c'
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set xlabel 'token budget (budget, tokens)'
set ylabel 'final loss (nats/token)'
plot $b0 using 1:2 with linespoints lw 2 pt 7 lc rgb '#000000' title 'format=nvfp4 (baseline)', \
     $b1 using 1:2 with linespoints lw 2 pt 7 lc rgb '#D55E00' title 'format=mxfp4'
unset output

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
1 1.96618211
EOD
$b1 << EOD
0.8 2.05768243
1 1.99286037
1.6 1.88215874
EOD
$b2 << EOD
1 1.94588018
EOD
set arrow 1 from graph 0, first 1.94588018 to graph 1, first 1.94588018 nohead dt 2 lc rgb '#555555'
set arrow 2 from graph 0, first 1.94588018 to graph 1, first 1.94588018 nohead dt 2 lc rgb '#555555'
set label 3 '+25.5%' at 1.25463144, 1.94588018 point pt 6 ps 2 offset 1,1
set title "Final validation loss vs token budget\nmean over seeds; dashed: the baseline's final loss at its base budget; circle: matched budget"
set format x '%.3s%c'
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
set xlabel 'token budget (budget, tokens)'
set ylabel 'final loss (nats/token)'
plot $b0 using 1:2 with linespoints lw 2 pt 7 lc rgb '#0072B2' title 'recipe=nvfp4', \
     $b1 using 1:2 with linespoints lw 2 pt 7 lc rgb '#D55E00' title 'recipe=mxfp4', \
     $b2 using 1:2 with linespoints lw 2 pt 7 lc rgb '#000000' title 'recipe=bf16 (baseline)'
unset output

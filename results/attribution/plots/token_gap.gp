# fp4lab plot 'token_gap' (written by fp4lab; data inline).
# Re-render: gnuplot token_gap.gp   or   gnuplot -e "fmt='svg'" token_gap.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'token_gap.' . fmt
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
$tok << EOD
# x gap_pct lo hi censored label
0 14.6513536 14.6513536 14.6513536 1 "arm=+fp4"
1 5.82037788 -9.10920279 20.7499586 0 "arm=+fp4+e4m3_scales"
2 4.54460228 -2.9895346 12.0787392 0 "arm=+fp4+e4m3_scales+block16"
3 3.30544553 3.30544553 3.30544553 1 "arm=+fp4+e4m3_scales+block16+weights_2d"
4 -0.699129568 -13.1099979 11.7117388 0 "arm=+fp4+e4m3_scales+block16+weights_2d+rht"
5 2.82506092 -2.56953594 8.21965777 0 "arm=+fp4+e4m3_scales+block16+weights_2d+rht+sr"
6 3.2879691 3.2879691 3.2879691 1 "arm=+fp4+e4m3_scales+block16+weights_2d+rht+sr+bf16_operands"
7 16.8713559 16.8713559 16.8713559 1 "arm=+fp4+bf16_operands"
8 19.4264942 19.4264942 19.4264942 1 "arm=+fp4+sr+bf16_operands"
9 14.1355174 14.1355174 14.1355174 1 "arm=+fp4+rht+sr+bf16_operands"
10 19.4039574 19.4039574 19.4039574 1 "arm=+fp4+weights_2d+rht+sr+bf16_operands"
11 11.0163598 11.0163598 11.0163598 1 "arm=+fp4+block16+weights_2d+rht+sr+bf16_operands"
EOD
set title "Extra tokens to reach the target loss (target: baseline_final)\nT_config / T_baseline - 1, mean over seeds; bars: 95% CI"
set xrange [-0.6:11.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'token gap (%)'
set xlabel 'config'
plot $tok using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN):xtic(6) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'reached the target', \
     $tok using 1:($5 == 1 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '#D55E00' title 'never reached within budget (lower bound)', \
     $tok using 1:($5 == 1 ? $2 : NaN):(sprintf('> %.1f%%', $2)) with labels offset 0,1.2 notitle
unset output

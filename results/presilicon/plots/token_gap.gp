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
0 -4.08614178 -11.8695422 3.69725863 0 "variant=ue5m3"
1 -3.0311492 -8.33500642 2.27270803 0 "variant=window32"
2 -0.295172023 -5.36398039 4.77363635 0 "variant=4over6_rht_sr_q448"
3 -0.596060588 -3.06170521 1.86958403 0 "variant=4over6_rht_sr_q256"
4 5.26126812 5.26126812 5.26126812 1 "variant=scale_round_up"
5 1.83347915 -6.4740611 10.1410194 0 "variant=scale_round_down"
6 -3.05048976 -8.35900632 2.25802679 0 "variant=fp8_dpa"
EOD
set title "Extra tokens to reach the target loss (target: baseline_final)\nT_config / T_baseline - 1, mean over seeds; bars: 95% CI"
set xrange [-0.6:6.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'token gap (%)'
set xlabel 'config'
plot $tok using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN):xtic(6) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'reached the target', \
     $tok using 1:($5 == 1 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '#D55E00' title 'never reached within budget (lower bound)', \
     $tok using 1:($5 == 1 ? $2 : NaN):(sprintf('> %.1f%%', $2)) with labels offset 0,1.2 notitle
unset output

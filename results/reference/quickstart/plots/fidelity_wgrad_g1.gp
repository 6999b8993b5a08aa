# fp4lab plot 'fidelity_wgrad_g1' (written by fp4lab; data inline).
# Re-render: gnuplot fidelity_wgrad_g1.gp   or   gnuplot -e "fmt='svg'" fidelity_wgrad_g1.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'fidelity_wgrad_g1.' . fmt
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
$l0 << EOD
# tokens gain gain gain step
1024 0.870592713 0.870592713 0.870592713 1
331776 0.969949047 0.969949047 0.969949047 324
EOD
$l1 << EOD
# tokens gain gain gain step
1024 0.857413789 0.857413789 0.857413789 1
331776 0.935121109 0.935121109 0.935121109 324
EOD
$l2 << EOD
# tokens gain gain gain step
1024 0.853291571 0.853291571 0.853291571 1
331776 0.932589879 0.932589879 0.932589879 324
EOD
$l3 << EOD
# tokens gain gain gain step
1024 0.825581849 0.825581849 0.825581849 1
331776 0.780014545 0.780014545 0.780014545 324
EOD
$l4 << EOD
# tokens gain gain gain step
1024 0.903296769 0.903296769 0.903296769 1
331776 0.793226322 0.793226322 0.793226322 324
EOD
$l5 << EOD
# tokens gain gain gain step
1024 0.849125544 0.849125544 0.849125544 1
331776 0.731391917 0.731391917 0.731391917 324
EOD
$l6 << EOD
# tokens gain gain gain step
1024 0.906963875 0.906963875 0.906963875 1
331776 0.805621862 0.805621862 0.805621862 324
EOD
$l7 << EOD
# tokens gain gain gain step
1024 0.872912387 0.872912387 0.872912387 1
331776 0.985294988 0.985294988 0.985294988 324
EOD
$l8 << EOD
# tokens gain gain gain step
1024 0.868560274 0.868560274 0.868560274 1
331776 0.952289402 0.952289402 0.952289402 324
EOD
$l9 << EOD
# tokens gain gain gain step
1024 0.874420653 0.874420653 0.874420653 1
331776 0.958838453 0.958838453 0.958838453 324
EOD
$l10 << EOD
# tokens gain gain gain step
1024 0.846569171 0.846569171 0.846569171 1
331776 0.981162667 0.981162667 0.981162667 324
EOD
$l11 << EOD
# tokens gain gain gain step
1024 0.897718797 0.897718797 0.897718797 1
331776 0.997305304 0.997305304 0.997305304 324
EOD
$l12 << EOD
# tokens gain gain gain step
1024 0.840349903 0.840349903 0.840349903 1
331776 0.927436501 0.927436501 0.927436501 324
EOD
$l13 << EOD
# tokens gain gain gain step
1024 0.908761382 0.908761382 0.908761382 1
331776 0.956930002 0.956930002 0.956930002 324
EOD
$l14 << EOD
# tokens gain gain gain step
1024 0.875714352 0.875714352 0.875714352 1
331776 0.984702011 0.984702011 0.984702011 324
EOD
$l15 << EOD
# tokens gain gain gain step
1024 0.867251744 0.867251744 0.867251744 1
331776 0.950980981 0.950980981 0.950980981 324
EOD
$l16 << EOD
# tokens gain gain gain step
1024 0.872175525 0.872175525 0.872175525 1
331776 0.963572621 0.963572621 0.963572621 324
EOD
$l17 << EOD
# tokens gain gain gain step
1024 0.849956612 0.849956612 0.849956612 1
331776 0.978844265 0.978844265 0.978844265 324
EOD
$l18 << EOD
# tokens gain gain gain step
1024 0.882724941 0.882724941 0.882724941 1
331776 1.00128499 1.00128499 1.00128499 324
EOD
$l19 << EOD
# tokens gain gain gain step
1024 0.829865356 0.829865356 0.829865356 1
331776 0.965191255 0.965191255 0.965191255 324
EOD
$l20 << EOD
# tokens gain gain gain step
1024 0.897843222 0.897843222 0.897843222 1
331776 0.974565446 0.974565446 0.974565446 324
EOD
$l21 << EOD
# tokens gain gain gain step
1024 0.9540402 0.9540402 0.9540402 1
331776 0.976377487 0.976377487 0.976377487 324
EOD
set title "Weight-gradient gain against fp32 over training: budget=0.8, recipe=mxfp4\n<dW, dW_fp32> / <dW_fp32, dW_fp32> per linear layer, mean over seeds"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set key outside right font ',7'
set xlabel 'tokens (log scale)'
set ylabel 'wgrad gain'
plot $l0 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#0072B2' title 'layers.0.mlp.down_proj', \
     $l1 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#D55E00' title 'layers.0.mlp.gate_proj', \
     $l2 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#009E73' title 'layers.0.mlp.up_proj', \
     $l3 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#CC79A7' title 'layers.0.self_attn.k_proj', \
     $l4 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#E69F00' title 'layers.0.self_attn.o_proj', \
     $l5 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#56B4E9' title 'layers.0.self_attn.q_proj', \
     $l6 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#F0E442' title 'layers.0.self_attn.v_proj', \
     $l7 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#882255' title 'layers.1.mlp.down_proj', \
     $l8 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#44AA99' title 'layers.1.mlp.gate_proj', \
     $l9 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#999933' title 'layers.1.mlp.up_proj', \
     $l10 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#0072B2' title 'layers.1.self_attn.k_proj', \
     $l11 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#D55E00' title 'layers.1.self_attn.o_proj', \
     $l12 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#009E73' title 'layers.1.self_attn.q_proj', \
     $l13 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#CC79A7' title 'layers.1.self_attn.v_proj', \
     $l14 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#E69F00' title 'layers.2.mlp.down_proj', \
     $l15 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#56B4E9' title 'layers.2.mlp.gate_proj', \
     $l16 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#F0E442' title 'layers.2.mlp.up_proj', \
     $l17 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#882255' title 'layers.2.self_attn.k_proj', \
     $l18 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#44AA99' title 'layers.2.self_attn.o_proj', \
     $l19 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#999933' title 'layers.2.self_attn.q_proj', \
     $l20 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#0072B2' title 'layers.2.self_attn.v_proj', \
     $l21 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#D55E00' title 'lm_head', 1 with lines dt 2 lc rgb 'gray' notitle
unset output

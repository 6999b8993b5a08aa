# fp4lab plot 'fidelity_wgrad_g2' (written by fp4lab; data inline).
# Re-render: gnuplot fidelity_wgrad_g2.gp   or   gnuplot -e "fmt='svg'" fidelity_wgrad_g2.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'fidelity_wgrad_g2.' . fmt
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
331776 0.970661163 0.970661163 0.970661163 324
663552 0.900455972 0.900455972 0.900455972 648
EOD
$l1 << EOD
# tokens gain gain gain step
1024 0.857413789 0.857413789 0.857413789 1
331776 0.899534265 0.899534265 0.899534265 324
663552 0.847392668 0.847392668 0.847392668 648
EOD
$l2 << EOD
# tokens gain gain gain step
1024 0.853291571 0.853291571 0.853291571 1
331776 0.908395121 0.908395121 0.908395121 324
663552 0.851336588 0.851336588 0.851336588 648
EOD
$l3 << EOD
# tokens gain gain gain step
1024 0.825581849 0.825581849 0.825581849 1
331776 0.778259039 0.778259039 0.778259039 324
663552 0.67955857 0.67955857 0.67955857 648
EOD
$l4 << EOD
# tokens gain gain gain step
1024 0.903296769 0.903296769 0.903296769 1
331776 0.787386278 0.787386278 0.787386278 324
663552 0.765448709 0.765448709 0.765448709 648
EOD
$l5 << EOD
# tokens gain gain gain step
1024 0.849125544 0.849125544 0.849125544 1
331776 0.789696306 0.789696306 0.789696306 324
663552 0.706421355 0.706421355 0.706421355 648
EOD
$l6 << EOD
# tokens gain gain gain step
1024 0.906963875 0.906963875 0.906963875 1
331776 0.789524466 0.789524466 0.789524466 324
663552 0.754234403 0.754234403 0.754234403 648
EOD
$l7 << EOD
# tokens gain gain gain step
1024 0.872912387 0.872912387 0.872912387 1
331776 1.00521873 1.00521873 1.00521873 324
663552 0.918570071 0.918570071 0.918570071 648
EOD
$l8 << EOD
# tokens gain gain gain step
1024 0.868560274 0.868560274 0.868560274 1
331776 0.937075655 0.937075655 0.937075655 324
663552 0.889778525 0.889778525 0.889778525 648
EOD
$l9 << EOD
# tokens gain gain gain step
1024 0.874420653 0.874420653 0.874420653 1
331776 0.93155552 0.93155552 0.93155552 324
663552 0.903938313 0.903938313 0.903938313 648
EOD
$l10 << EOD
# tokens gain gain gain step
1024 0.846569171 0.846569171 0.846569171 1
331776 0.864844898 0.864844898 0.864844898 324
663552 0.746749451 0.746749451 0.746749451 648
EOD
$l11 << EOD
# tokens gain gain gain step
1024 0.897718797 0.897718797 0.897718797 1
331776 1.00347277 1.00347277 1.00347277 324
663552 0.932074606 0.932074606 0.932074606 648
EOD
$l12 << EOD
# tokens gain gain gain step
1024 0.840349903 0.840349903 0.840349903 1
331776 0.883375823 0.883375823 0.883375823 324
663552 0.842678666 0.842678666 0.842678666 648
EOD
$l13 << EOD
# tokens gain gain gain step
1024 0.908761382 0.908761382 0.908761382 1
331776 0.985315055 0.985315055 0.985315055 324
663552 0.828833858 0.828833858 0.828833858 648
EOD
$l14 << EOD
# tokens gain gain gain step
1024 0.875714352 0.875714352 0.875714352 1
331776 0.97368595 0.97368595 0.97368595 324
663552 0.949731261 0.949731261 0.949731261 648
EOD
$l15 << EOD
# tokens gain gain gain step
1024 0.867251744 0.867251744 0.867251744 1
331776 0.964641889 0.964641889 0.964641889 324
663552 0.919604113 0.919604113 0.919604113 648
EOD
$l16 << EOD
# tokens gain gain gain step
1024 0.872175525 0.872175525 0.872175525 1
331776 0.9659368 0.9659368 0.9659368 324
663552 0.918892513 0.918892513 0.918892513 648
EOD
$l17 << EOD
# tokens gain gain gain step
1024 0.849956612 0.849956612 0.849956612 1
331776 0.922181139 0.922181139 0.922181139 324
663552 0.901164562 0.901164562 0.901164562 648
EOD
$l18 << EOD
# tokens gain gain gain step
1024 0.882724941 0.882724941 0.882724941 1
331776 1.00904099 1.00904099 1.00904099 324
663552 0.950596094 0.950596094 0.950596094 648
EOD
$l19 << EOD
# tokens gain gain gain step
1024 0.829865356 0.829865356 0.829865356 1
331776 0.938791047 0.938791047 0.938791047 324
663552 0.860595067 0.860595067 0.860595067 648
EOD
$l20 << EOD
# tokens gain gain gain step
1024 0.897843222 0.897843222 0.897843222 1
331776 0.966686249 0.966686249 0.966686249 324
663552 0.840149552 0.840149552 0.840149552 648
EOD
$l21 << EOD
# tokens gain gain gain step
1024 0.9540402 0.9540402 0.9540402 1
331776 0.987803996 0.987803996 0.987803996 324
663552 0.942909251 0.942909251 0.942909251 648
EOD
set title "Weight-gradient gain against fp32 over training: budget=1.0, recipe=mxfp4\n<dW, dW_fp32> / <dW_fp32, dW_fp32> per linear layer, mean over seeds"
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
